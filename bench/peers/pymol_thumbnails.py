# PyMOL peer for bench/run render: the same thumbnails as molshot, ray-traced, in one process.
# Run as: pymol -cq pymol_thumbnails.py  (files, size and output folder come from the environment)
import json
import os
from pymol import cmd

files = json.load(open(os.environ["PEER_FILES"]))
size = int(os.environ.get("PEER_SIZE", "256"))
out = os.environ["PEER_OUT"]
modes = os.environ.get("PEER_MODES", "ball-and-stick,spacefill").split(",")
# The same work as molshot's: each file's assembly (mmCIF) where asked, else the deposited model.
if os.environ.get("PEER_ASSEMBLY"):
    cmd.set("assembly", os.environ["PEER_ASSEMBLY"])
cmd.bg_color("white")
cmd.set("ray_opaque_background", 1)
for i, f in enumerate(files):
    cmd.load(f, "m")
    cmd.remove("hydro or solvent")
    for mode in modes:
        cmd.hide("everything")
        if mode == "cartoon":
            # PyMOL's picture of a polymer: its cartoon, with what the cartoon cannot show as sticks.
            cmd.show("cartoon")
            cmd.show("sticks", "not polymer")
        elif mode == "surface":
            # PyMOL's molecular surface (solvent-excluded, its default surface_type 0), colored by atom.
            cmd.show("surface")
        elif mode == "spacefill":
            cmd.show("spheres")
        else:
            cmd.show("sticks")
            cmd.set("stick_ball", 1)
            cmd.set("stick_radius", 0.15)
        cmd.orient("m")
        cmd.png(os.path.join(out, "%03d.%s.png" % (i, mode)), width=size, height=size, ray=1)
    cmd.delete("all")
