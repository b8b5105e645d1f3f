import Raster

/// Rasterizes a sprite cache's pieces and places them, for both styles' caches.
///
/// A retained maker's pieces own their memory and know where their content is
/// (`Sprite.indexRuns`); a one-frame maker borrows their memory from the pool until
/// `releaseBorrowed()`.
final class SpriteMaker {
    let pool: LayerPool
    /// Index each piece's content runs (worth it only when pieces are kept for many frames).
    let retained: Bool
    private var borrowed: [Pixmap] = []
    /// Pixmaps made so far (for tests: a draw after `ToggleDeviceRenderer.prepare` makes none).
    private(set) var made = 0

    init(pool: LayerPool, retained: Bool) {
        self.pool = pool
        self.retained = retained
    }

    /// Memory for a piece covering `bounds`: owned when retained, else borrowed from the pool.
    /// Transparent, unless `cleared` is false: then borrowed memory keeps what it held, for a
    /// caller that writes every pixel.
    func newPixmap(_ bounds: IntRect, cleared: Bool = true) -> Pixmap {
        made += 1
        if retained { return Pixmap(width: bounds.width, height: bounds.height) }
        let pix = pool.take(width: bounds.width, height: bounds.height, cleared: cleared)
        borrowed.append(pix)
        return pix
    }

    /// Renders a piece into its own pixmap covering `bounds` (device pixels, origin 0,0).
    func sprite(_ bounds: IntRect, _ transform: Transform, _ draw: (Canvas) -> Void) -> Sprite {
        let pix = newPixmap(bounds)
        let c = Canvas(pix, pool: pool)
        c.retarget(pix, origin: (bounds.x, bounds.y))
        c.transform = transform
        draw(c)
        var s = Sprite(pixmap: pix, origin: (bounds.x, bounds.y))
        if retained {
            s = s.trimmed()
            s.indexRuns()
        }
        return s
    }

    /// Renders a piece drawn as one layer (content, then what acts on a layer's content: drop
    /// shadows, blurs) whose pixmap is the sprite: the bytes `sprite` makes of drawing that layer
    /// into a piece of the same bounds and ending it there (src-over onto transparent pixels is
    /// the source), without the second pixmap and the composite.
    func layerSprite(_ bounds: IntRect, _ transform: Transform, _ draw: (Canvas) -> Void) -> Sprite {
        let pix = newPixmap(bounds)
        let c = Canvas(pix, pool: pool)
        c.retarget(pix, origin: (bounds.x, bounds.y))
        c.transform = transform
        c.beginLayer(deviceBounds: bounds, storage: pix)
        draw(c)
        var s = c.endLayerAsSprite()
        if retained {
            s = s.trimmed()
            s.indexRuns()
        }
        return s
    }

    /// Draws `sprite` (positioned for origin 0,0) shifted to `origin` + (dx, dy). The sprite is
    /// only read: several canvases may place kept sprites at once (`ToggleDeviceRenderer.prepare`).
    static func place(_ sprite: Sprite, on canvas: Canvas, at origin: (x: Int, y: Int), dx: Int = 0, dy: Int = 0,
                      opacity: Double = 1, mask: LayerMask? = nil) {
        canvas.draw(sprite, offset: (origin.x + dx, origin.y + dy), opacity: opacity, mask: mask)
    }

    /// `first` at `firstOpacity`, then `second` at `secondOpacity`, both shifted to `origin`
    /// (`Canvas.drawPair`: one pass when they share their shape). An opacity that rounds to 0
    /// draws nothing, as `place` does.
    static func placePair(_ first: Sprite, opacity firstOpacity: Double, _ second: Sprite, opacity secondOpacity: Double,
                          alike: Bool, on canvas: Canvas, at origin: (x: Int, y: Int)) {
        canvas.drawPair(first, opacity: firstOpacity, second, opacity: secondOpacity, offset: origin, alike: alike)
    }

    /// Returns borrowed memory to the pool (one-frame instances).
    func releaseBorrowed() {
        for p in borrowed { pool.give(p) }
        borrowed.removeAll()
    }
}

/// The sun and moon sprites of a cache, one per key (a sub-pixel phase, or one key for a style
/// drawn on whole pixels), made on first use.
///
/// A class, so that finding a kept sprite only reads the cache that holds it: drawing threads
/// look sprites up, and the thread that prepares the frame makes them.
final class BodySprites {
    private var suns: [Int: Sprite] = [:], moons: [Int: Sprite] = [:]

    /// Takes the sprites `other` holds at keys this one lacks.
    func adopt(_ other: BodySprites) {
        suns.merge(other.suns) { mine, _ in mine }
        moons.merge(other.moons) { mine, _ in mine }
    }

    func sprite(moon: Bool, key: Int = 0, make: () -> Sprite) -> Sprite {
        if let s = moon ? moons[key] : suns[key] { return s }
        let s = make()
        if moon { moons[key] = s } else { suns[key] = s }
        return s
    }
}
