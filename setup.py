"""webseg's optional C extensions; everything else about the package is in pyproject.toml.

Each extension is ``optional``: a machine without a C compiler or Python's headers still
installs webseg, and the callers fall back to their numpy/Python code (same outputs, slower).
``pip install -e .`` builds them in place, next to their sources; after editing a C file run
``python setup.py build_ext --inplace`` (or ``make setup``) to rebuild.
"""

from setuptools import Extension, setup

NATIVE = [
    ("treewalk", "tree ensembles' leaves and sums; two DOM passes (webseg.blocks, classify)"),
    ("domwalk", "the walk of a lexbor DOM into a Page's columns (webseg.parse)"),
    ("vocabmask", "category masks of class and id values (webseg.blocks.vocab)"),
    ("wordsplit", "the words of many texts, their stop words and title words (webseg.blocks)"),
    ("fusion", "block fusion's merge loop (webseg.segmenters.blockfusion)"),
    ("asciiwords", "the English analysis's [a-z0-9]+ tokens through a memo (ir.analysis)"),
    ("markupwalk", "the markup walk of the page-type features (classify.pagefeatures)"),
    ("textscan", "currency marks and word count of a page's text (classify.pagefeatures)"),
    ("termcount", "the word and word-pair counts of the page-type text view (classify.stacked)"),
    ("htmlscan", "words and tag starts of an HTML source in one pass (webseg.clean.metadata)"),
    ("blocktext", "block fusion's tokens, block texts and roots (webseg.segmenters.blockfusion)"),
    ("langwalk", "the language detector's byte n-gram feature counts (webseg.langscore)"),
]

setup(ext_modules=[
    Extension(f"webseg._native.{name}", [f"webseg/_native/{name}.c"],
              extra_compile_args=["-O2"], optional=True)
    for name, _why in NATIVE
])
