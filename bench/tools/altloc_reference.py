# Atom counts of altloc-rich entries as gemmi and biotite read them with their first-altloc
# defaults: the deposited model and each assembly. Writes Tests/Fixtures/altloc-reference.tsv.
# Usage: python3 bench/tools/altloc_reference.py FILE.cif (plain) ... > Tests/Fixtures/altloc-reference.tsv
import sys, os, gemmi, biotite
import biotite.structure.io.pdbx as pdbx

print("# gemmi %s, biotite %s; made by bench/tools/altloc_reference.py" % (gemmi.__version__, biotite.__version__))
print("file\tassembly\tgemmi_atoms\tbiotite_atoms")
for path in sys.argv[1:]:
    name = os.path.basename(path).replace(".gz", "")
    st = gemmi.read_structure(path)
    st.setup_entities()
    st.remove_alternative_conformations()
    cif = pdbx.CIFFile.read(path)
    arr = pdbx.get_structure(cif, model=1, altloc="first")
    print("%s\tmodel\t%d\t%d" % (name, st[0].count_atom_sites(), arr.array_length()))
    for a in st.assemblies:
        built = gemmi.make_assembly(a, st[0], gemmi.HowToNameCopiedChain.AddNumber)
        barr = pdbx.get_assembly(cif, assembly_id=a.name, model=1, altloc="first")
        print("%s\t%s\t%d\t%d" % (name, a.name, built.count_atom_sites(), barr.array_length()))
