"""The site configuration `docs --site mkdocs|sphinx` writes beside the documents, so that
`mkdocs build --strict` or `sphinx-build -W` runs on the folder as written and every ```math
fence reaches the page as display math rendered by MathJax.

MkDocs: OUT/mkdocs.yml with the documents in OUT/docs/; pymdownx.arithmatex in generic mode (its
spans and divs hold \\( \\) and \\[ \\] for MathJax), a superfences custom fence sending ```math to
arithmatex (without it every formula is a highlighted code block and --strict still passes),
and MathJax 3 configured to typeset only arithmatex's elements (docs/javascripts/mathjax.js, the
configuration pymdown-extensions documents, then MathJax from jsDelivr). Sphinx: OUT/conf.py and a
root document OUT/contents.md whose toctree globs the pages; MyST with `dollarmath` and `amsmath`,
```math fences as MyST's math directive; Sphinx's own mathjax extension loads MathJax.
Shortcut: MathJax comes from a CDN (the pages need a network to typeset, as GitHub's do).
"""

from __future__ import annotations

from pathlib import Path

from ...errors import LedgerError
from ...files import write_text

SITES = ("mkdocs", "sphinx")
MATHJAX_URL = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"

MKDOCS_YML = f"""\
# Written by `ledgerbuild docs --site mkdocs`: build with `mkdocs build --strict` in this folder.
site_name: Inference ledger
docs_dir: docs
validation: {{links: {{anchors: warn, unrecognized_links: warn}}}}
markdown_extensions:
  - tables
  - toc: {{permalink: false}}
  - pymdownx.arithmatex: {{generic: true}}
  - pymdownx.superfences:
      custom_fences:
        - name: math
          class: arithmatex
          format: !!python/object/apply:pymdownx.arithmatex.arithmatex_fenced_format
            kwds: {{mode: generic, tag: div}}
extra_javascript:
  - javascripts/mathjax.js
  - {MATHJAX_URL}
"""

# pymdown-extensions' documented MathJax 3 configuration for arithmatex's generic output
MATHJAX_JS = """\
window.MathJax = {
  tex: {inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]], processEscapes: true,
        processEnvironments: true},
  options: {ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex"}
};
"""

CONF_PY = """\
# Written by `ledgerbuild docs --site sphinx`: build with `sphinx-build -W -b html . _build` here.
project = "Inference ledger"
extensions = ["myst_parser"]  # Sphinx's mathjax extension is on by default for HTML
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_fence_as_directive = ["math"]  # GitHub's ```math fence as MyST's math directive
myst_heading_anchors = 2  # the index's contents link to the topic headings
root_doc = "contents"
exclude_patterns = ["_build"]
"""

CONTENTS_MD = "# Inference ledger\n\n```{toctree}\n:glob:\n\nindex\n*\n```\n"


def documents_folder(site: str | None, out: Path) -> Path:
    """Where the documents go: OUT/docs for MkDocs (its docs_dir may not hold mkdocs.yml), else OUT."""
    if site is not None and site not in SITES:
        raise LedgerError(f"--site {site!r}: expected one of {', '.join(SITES)}")
    return Path(out) / "docs" if site == "mkdocs" else Path(out)


def write_site(site: str, out: Path) -> str:
    """The configuration files for `site` in `out` (the documents already in documents_folder);
    returns the command that builds the site."""
    out = Path(out)
    if site == "mkdocs":
        write_text(out / "mkdocs.yml", MKDOCS_YML)
        (out / "docs" / "javascripts").mkdir(parents=True, exist_ok=True)
        write_text(out / "docs" / "javascripts" / "mathjax.js", MATHJAX_JS)
        return f"cd {out} && mkdocs build --strict"
    documents_folder(site, out)  # refuses an unknown site
    write_text(out / "conf.py", CONF_PY)
    write_text(out / "contents.md", CONTENTS_MD)
    return f"sphinx-build -W -b html {out} {out / '_build'}"
