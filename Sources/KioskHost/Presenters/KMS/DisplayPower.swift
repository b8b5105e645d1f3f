import CDRM
import Log
#if canImport(Glibc)
import Glibc
#endif

/// A KMS card whose output can be switched off and on again (the screen's sleep): the kernel's
/// own way, so the display itself powers down (DPMS standby/off) instead of showing black.
protocol KMSPower: AnyObject {
    /// Off: the CRTC inactive (atomic `ACTIVE=0` with `ALLOW_MODESET`), or the connector's
    /// `DPMS` property 3 (off) on a legacy driver. On: `ACTIVE=1` with the same mode blob, or
    /// `DPMS` 0. Blocking (no flip event follows).
    func setPower(_ on: Bool) throws(CardFailure)
}

extension DrmDevice: KMSPower {
    func setPower(_ on: Bool) throws(CardFailure) {
        // Atomic when the card was set up for it (its primary plane's properties were read).
        if plane != nil {
            do {
                try setActiveAtomic(on)
                return
            } catch {
                Log.warning("\(path): atomic ACTIVE=\(on ? 1 : 0) refused (\(error.message)); trying the connector's DPMS")
            }
        }
        try setDPMS(on)
    }

    /// One blocking atomic commit of the CRTC's `ACTIVE` (and, switching on, its current
    /// `MODE_ID` again), allowed to modeset.
    private func setActiveAtomic(_ on: Bool) throws(CardFailure) {
        let ids = Self.properties(fd: fd, object: crtcID, type: CDRM_MODE_OBJECT_CRTC)
        guard let active = ids["ACTIVE"] else { throw CardFailure(step: "CRTC property ACTIVE", code: ENOENT) }
        guard let req = drmModeAtomicAlloc() else { throw CardFailure(step: "drmModeAtomicAlloc", code: ENOMEM) }
        defer { drmModeAtomicFree(req) }
        _ = drmModeAtomicAddProperty(req, crtcID, active, on ? 1 : 0)
        if on, let modeID = ids["MODE_ID"] {
            let blob = Self.properties(fd: fd, object: crtcID, type: CDRM_MODE_OBJECT_CRTC, values: true)["MODE_ID"] ?? 0
            if blob != 0 { _ = drmModeAtomicAddProperty(req, crtcID, modeID, UInt64(blob)) }
        }
        guard drmModeAtomicCommit(fd, req, CDRM_MODE_ATOMIC_ALLOW_MODESET, nil) == 0 else {
            throw CardFailure(step: "drmModeAtomicCommit (ACTIVE=\(on ? 1 : 0))", code: errno)
        }
    }

    /// The connector's legacy `DPMS` property: 0 on, 3 off.
    private func setDPMS(_ on: Bool) throws(CardFailure) {
        guard let dpms = Self.properties(fd: fd, object: connectorID, type: CDRM_MODE_OBJECT_CONNECTOR)["DPMS"] else {
            throw CardFailure(step: "connector property DPMS", code: ENOENT)
        }
        guard drmModeConnectorSetProperty(fd, connectorID, dpms, on ? 0 : 3) == 0 else {
            throw CardFailure(step: "drmModeConnectorSetProperty (DPMS \(on ? 0 : 3))", code: errno)
        }
    }
}

extension DrmPresenter {
    /// Switches the display off (the screen asleep: no frames are drawn meanwhile) or back on;
    /// on, the whole page goes to every buffer again (the caller's next frame sends it). False
    /// when the card cannot (then the caller shows a black page instead) or the display is not
    /// ours just now (paused: master comes back with a mode set, which switches it on).
    func setPowered(_ on: Bool) -> Bool {
        guard !closed, !paused, let power = card as? KMSPower else { return false }
        if !on, chain.queued != nil { waitForFlip() }
        do {
            try power.setPower(on)
        } catch {
            if error.lostMaster { return pause() }
            Log.warning("\(card.path): switching the display \(on ? "on" : "off") failed: \(error.message)")
            // Switching on failed: the next frame sets the mode with drmModeSetCrtc, which does.
            if on { modeSet = false }
            chain.invalidate(bounds: output)
            return false
        }
        if on { chain.invalidate(bounds: output) }
        return true
    }
}
