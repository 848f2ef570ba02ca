"""Generated map modules (tools/gen_map.py), loaded by name: sy.rules.mapgraph.load('london')."""
