import Testing
@testable import Kiosk
