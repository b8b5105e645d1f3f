import Testing
@testable import DarkModeToggle

/// `AmbientPacing`: the frames left out while only the ambient loops move keep every cloud
/// within ¼ px and every star within 1/64 between two frames shown, checked against the loops
/// themselves at every 60 Hz frame in between.
@Suite struct AmbientPacingTests {
    static let period = 1.0 / 60
    /// 260 pt toggles at scale 1 (1080p) and 2.
    static let units = [260.0 / 173, 2 * 260.0 / 173]

    static func scenes(_ unit: Double, appearance: Double) -> [AmbientPacing.Scene] {
        [AmbientPacing.Scene(style: .original, trackUnit: unit, appearance: appearance),
         AmbientPacing.Scene(style: .vivid, trackUnit: unit, appearance: appearance)]
    }

    /// Every moving value as drawn, in device pixels or opacity/scale units, straight from the
    /// loops (not through `AmbientPacing.values`): cloud offsets × px per unit; opacities; scales.
    static func clouds(_ unit: Double, _ t: Double) -> [Double] {
        Ambient.cloudDurations.indices.map { Ambient.cloudOffsetY(group: $0, time: t, reduceMotion: false) * unit }
            + VividArt.cloudGroups.indices.map {
                VividAmbient.cloudOffsetY(group: $0, time: t, reduceMotion: false) * VividArt.sceneScale * unit
            }
    }
    static func stars(_ t: Double) -> [Double] {
        Ambient.starDurations.indices.map { Ambient.starOpacity(group: $0, time: t, reduceMotion: false) }
            + (1...VividArt.starDurations.count).map { VividAmbient.starScale(group: $0, time: t, reduceMotion: false) }
    }

    /// Walks 20 s of the 60 Hz grid as the host does (frame k shown, then `framesToSkip` left
    /// out) and checks, for every frame shown after the first, that no value moved past its
    /// bound from the frame shown before — at the frame itself and at every grid frame between
    /// — unless the two frames are neighbours on the grid (the display's full rate).
    @Test(arguments: [0.0, 1.0], units)
    func boundsHoldBetweenFramesShown(appearance: Double, unit: Double) {
        let scenes = Self.scenes(unit, appearance: appearance)
        let day = appearance < 1
        var k = 0, shownFrames = 1, adjacent = 0, largestSkip = 0
        let last = 20 * 60
        while k < last {
            let skip = AmbientPacing.framesToSkip(shown: Double(k) * Self.period, now: Double(k) * Self.period,
                                                  period: Self.period, scenes: scenes)
            #expect(skip >= 0 && skip <= AmbientPacing.maxSkip)
            largestSkip = max(largestSkip, skip)
            let next = k + skip + 1
            let t0 = Double(k) * Self.period
            for j in (k + 1)...next {
                let t = Double(j) * Self.period
                if day {
                    for (a, b) in zip(Self.clouds(unit, t0), Self.clouds(unit, t)) where next > k + 1 {
                        #expect(abs(a - b) <= AmbientPacing.maxCloudStep + 1e-12, "cloud moved \(abs(a - b)) px between frames \(k) and \(j)")
                    }
                } else {
                    for (a, b) in zip(Self.stars(t0), Self.stars(t)) where next > k + 1 {
                        #expect(abs(a - b) <= AmbientPacing.maxStarStep + 1e-12, "star stepped \(abs(a - b)) between frames \(k) and \(j)")
                    }
                }
            }
            if next == k + 1 { adjacent += 1 }
            k = next
            shownFrames += 1
        }
        // Not a rule that never leaves anything out: frames are left out, and not all of them.
        #expect(shownFrames < last, "every frame shown (\(shownFrames) of \(last))")
        #expect(largestSkip > 0)
        #expect(shownFrames > 2 * 20, "fewer than 2 frames a second (\(shownFrames))")
    }

    /// The frame after a skip is the last one within the bounds: the one after it is not
    /// (else the rule could have left out more), unless the cap was reached.
    @Test(arguments: units)
    func theFrameShownIsTheLastWithinBounds(unit: Double) {
        let scenes = Self.scenes(unit, appearance: 0)
        for k in stride(from: 0, to: 600, by: 7) {
            let t0 = Double(k) * Self.period
            let skip = AmbientPacing.framesToSkip(shown: t0, now: t0, period: Self.period, scenes: scenes)
            guard skip > 0, skip < AmbientPacing.maxSkip else { continue }
            let beyond = Double(k + skip + 2) * Self.period
            let moved = zip(Self.clouds(unit, t0), Self.clouds(unit, beyond)).map { abs($0 - $1) }.max()!
            #expect(moved > AmbientPacing.maxCloudStep, "frame \(k): could have left out more than \(skip)")
        }
    }

    /// Counted from the frame shown, not the last one rendered: a frame that drew nothing does
    /// not move the reference.
    @Test func countsFromTheFrameShown() {
        let scenes = Self.scenes(Self.units[0], appearance: 0)
        let shown = 1.0, now = shown + 3 * Self.period
        let skip = AmbientPacing.framesToSkip(shown: shown, now: now, period: Self.period, scenes: scenes)
        let next = now + Double(skip + 1) * Self.period
        if skip > 0 {
            let moved = zip(Self.clouds(Self.units[0], shown), Self.clouds(Self.units[0], next)).map { abs($0 - $1) }.max()!
            #expect(moved <= AmbientPacing.maxCloudStep + 1e-12)
        }
    }

    /// Only what shows counts: by day the stars (which twinkle fast) do not hold frames back,
    /// by night the clouds do not; with nothing moving the cap applies.
    @Test func onlyTheScenesShownCount() {
        let unit = Self.units[0]
        let dayOnly = [AmbientPacing.Scene(style: .original, trackUnit: unit, showsClouds: true, showsStars: false)]
        let both = [AmbientPacing.Scene(style: .original, trackUnit: unit, showsClouds: true, showsStars: true)]
        var fewer = 0
        for k in 0..<300 {
            let t = Double(k) * Self.period
            let a = AmbientPacing.framesToSkip(shown: t, now: t, period: Self.period, scenes: dayOnly)
            let b = AmbientPacing.framesToSkip(shown: t, now: t, period: Self.period, scenes: both)
            #expect(b <= a)
            if b < a { fewer += 1 }
        }
        #expect(fewer > 0)
        let still = [AmbientPacing.Scene(style: .vivid, trackUnit: unit, showsClouds: false, showsStars: false)]
        #expect(AmbientPacing.framesToSkip(shown: 0, now: 0, period: Self.period, scenes: still) == AmbientPacing.maxSkip)
        #expect(AmbientPacing.Scene(style: .original, trackUnit: unit, appearance: 0.5).showsClouds)
        #expect(AmbientPacing.Scene(style: .original, trackUnit: unit, appearance: 0.5).showsStars)
        #expect(!AmbientPacing.Scene(style: .original, trackUnit: unit, appearance: 1).showsClouds)
        #expect(!AmbientPacing.Scene(style: .original, trackUnit: unit, appearance: 0).showsStars)
    }

    @Test func nonsenseLeavesNothingOut() {
        let scenes = Self.scenes(Self.units[0], appearance: 0)
        #expect(AmbientPacing.framesToSkip(shown: 2, now: 1, period: Self.period, scenes: scenes) == 0)
        #expect(AmbientPacing.framesToSkip(shown: 0, now: 0, period: 0, scenes: scenes) == 0)
        #expect(AmbientPacing.framesToSkip(shown: .nan, now: 0, period: Self.period, scenes: scenes) == 0)
    }
}
