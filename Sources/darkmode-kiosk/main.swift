import Kiosk
import KioskSDL
print("darkmode-kiosk: under construction")
