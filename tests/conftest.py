import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# tests/mpy.py and the plain-function test folders are importable as top-level modules
sys.path.insert(0, HERE)
