"""The generated Markdown builds as a site without edits: MkDocs --strict with arithmatex, and
Sphinx -W with MyST (issue 15). Only configuration is added (mkdocs.yml, conf.py and a root
toctree): the documents are the ones `ledgerbuild docs` writes.

Each ```math fence must reach the page as display math: arithmatex's div in MkDocs, a math
div in Sphinx; none may come out as a highlighted code block.
"""

import re
import subprocess
import sys
import textwrap

import pytest

from ledgerbuild import catalog
from ledgerbuild.writers.docs import write_docs

pytestmark = pytest.mark.sites
MODELS = "llama-3-8b,deepseek-v3,gpt-oss-20b,gemma-3-27b"  # dense, MLA + MoE, sinks, sliding


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    write_docs(MODELS, ["md"], {}, root / "docs", plots=True)
    return root


def fences(page) -> int:
    return page.read_text().count("```math")


def test_mkdocs_strict_build_renders_every_formula(pages):
    (pages / "mkdocs.yml").write_text(
        textwrap.dedent("""\
        site_name: ledger
        validation: {links: {anchors: warn, unrecognized_links: warn}}
        markdown_extensions:
          - tables
          - pymdownx.arithmatex: {generic: true}
          - pymdownx.superfences:
              custom_fences:
                - name: math
                  class: arithmatex
                  format: !!python/object/apply:pymdownx.arithmatex.arithmatex_fenced_format
                    kwds: {mode: generic, tag: div}
        """)
    )
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"],
        cwd=pages,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    for model in MODELS.split(","):
        html = (pages / "site" / model / "index.html").read_text()
        assert html.count('<div class="arithmatex">') == fences(pages / "docs" / f"{model}.md") > 100
        assert 'class="language-math' not in html
        assert re.search(r'<img alt="[^"]*roofline[^"]*" src="\.\./' + re.escape(model), html)


def test_sphinx_myst_build_renders_every_formula(pages):
    src = pages / "docs"
    (src / "conf.py").write_text(
        textwrap.dedent("""\
        extensions = ["myst_parser"]
        myst_fence_as_directive = ["math"]   # GitHub's ```math fence as MyST's math directive
        myst_heading_anchors = 2             # the index's contents link to the topic headings
        root_doc = "contents"
        exclude_patterns = ["_build"]
        """)
    )
    (src / "contents.md").write_text("# Ledger\n\n```{toctree}\n:glob:\n\nindex\n*\n```\n")
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", ".", "_build"],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    for model in MODELS.split(","):
        html = (src / "_build" / f"{model}.html").read_text()
        assert html.count('<div class="math notranslate nohighlight">') == fences(src / f"{model}.md")
        assert "highlight-math" not in html
    index = (src / "_build" / "index.html").read_text()
    # the contents' anchors resolve (-W fails on one that does not); MyST slugs _ as -
    assert 'href="llama-3-8b.html#kv-cache"' in index
    assert len(catalog.models()) > len(MODELS.split(","))  # a subset: the full set in test_docs
