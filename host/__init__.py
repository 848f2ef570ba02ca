"""The host tool `yard`: Mister X's console, the board link, flashing, the simulator."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
