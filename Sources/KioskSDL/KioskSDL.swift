import CSDL2
import Kiosk
