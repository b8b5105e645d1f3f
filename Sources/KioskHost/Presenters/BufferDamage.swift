import Raster

/// Which output rectangles each buffer of a swap chain lacks. Every frame's changes go to
/// every buffer; the buffer drawn takes (and clears) its own list. The page frame always holds
/// the whole current page, so copying a buffer's list from it brings the buffer up to date.
struct BufferDamage {
    private(set) var missing: [[IntRect]] = []

    /// A new buffer (index returned) lacks everything.
    mutating func addBuffer(bounds: IntRect) -> Int {
        missing.append([bounds])
        return missing.count - 1
    }

    mutating func changed(_ rects: [IntRect], bounds: IntRect) {
        guard !rects.isEmpty else { return }
        for i in missing.indices { missing[i] = Self.merged(rects.reduce(missing[i], Self.adding), bounds: bounds) }
    }

    /// `list` with `rect` added: folded into each rectangle it overlaps whose bounding box
    /// together with it has no more pixels than the two apart (so nothing is copied twice and
    /// nothing is copied that neither covers more than the overlap saves). The frames of an
    /// animation damage nearly the same place, so a buffer that missed three of them keeps
    /// one rectangle, not three overlapping copies.
    static func adding(_ list: [IntRect], _ rect: IntRect) -> [IntRect] {
        guard !rect.isEmpty else { return list }
        var list = list, rect = rect
        while let i = list.firstIndex(where: { !$0.intersection(rect).isEmpty && $0.union(rect).area <= $0.area + rect.area }) {
            rect = list.remove(at: i).union(rect)
        }
        list.append(rect)
        return list
    }

    /// What buffer `index` must copy before it shows the current page; cleared.
    mutating func take(_ index: Int) -> [IntRect] {
        defer { missing[index] = [] }
        return missing[index]
    }

    /// Past a handful of rectangles, their bounding box (fewer, larger copies and damage).
    static func merged(_ rects: [IntRect], bounds: IntRect) -> [IntRect] {
        guard rects.count > 16 else { return rects }
        return [rects.dropFirst().reduce(rects[0]) { $0.union($1) }.intersection(bounds)]
    }
}
