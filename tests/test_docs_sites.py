"""The generated Markdown builds as a site as `ledgerbuild docs --site mkdocs|sphinx` writes it:
MkDocs --strict with arithmatex, Sphinx -W with MyST (issues 15 and 31). The configuration is
the command's own (mkdocs.yml; conf.py and a root toctree): nothing is added by the test.

Each ```math fence must reach the page as display math MathJax typesets: arithmatex's div
holding \\[ ... \\] in MkDocs (with MathJax configured for arithmatex and loaded), a math div in
Sphinx (its mathjax extension loading MathJax); none may come out as a highlighted code block
(arithmatex without the superfences fence does that, and --strict still passes).
"""

import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from ledgerbuild import catalog
from ledgerbuild.cli import app

pytestmark = pytest.mark.sites
MODELS = "llama-3-8b,deepseek-v3,gpt-oss-20b,gemma-3-27b"  # dense, MLA + MoE, sinks, sliding
runner = CliRunner()


def _site(root, kind):
    r = runner.invoke(app, ["docs", "--models", MODELS, "--format", "md", "--site", kind, "-o", str(root)])
    assert r.exit_code == 0, r.output
    return root


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory):
    return _site(tmp_path_factory.mktemp("mkdocs") / "site-src", "mkdocs")


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory):
    return _site(tmp_path_factory.mktemp("sphinx") / "docs", "sphinx")


def fences(page) -> int:
    return page.read_text().count("```math")


def _build(command, cwd):
    run = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "WARNING" not in run.stderr and "warning" not in run.stderr.lower(), run.stderr[-3000:]
    return run


def test_mkdocs_strict_build_renders_every_formula(mkdocs_site):
    assert (mkdocs_site / "mkdocs.yml").is_file()
    _build([sys.executable, "-m", "mkdocs", "build", "--strict"], mkdocs_site)
    for model in MODELS.split(","):
        html = (mkdocs_site / "site" / model / "index.html").read_text()
        divs = re.findall(r'<div class="arithmatex">(.*?)</div>', html, re.S)
        assert len(divs) == fences(mkdocs_site / "docs" / f"{model}.md") > 100
        assert all(d.strip().startswith("\\[") and d.strip().endswith("\\]") for d in divs)
        assert 'class="language-math' not in html and "<code>\\begin{aligned}" not in html
        assert re.search(r'<img alt="[^"]*roofline[^"]*" src="\.\./' + re.escape(model), html)
        # MathJax configured to typeset arithmatex's elements, then loaded
        config = html.index('src="../javascripts/mathjax.js"')
        assert config < html.index('src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"')
    script = (mkdocs_site / "site" / "javascripts" / "mathjax.js").read_text()
    assert 'processHtmlClass: "arithmatex"' in script
    assert (mkdocs_site / "site" / "reproduce-the-lecture" / "index.html").is_file()


def test_sphinx_myst_build_renders_every_formula(sphinx_site):
    assert (sphinx_site / "conf.py").is_file() and (sphinx_site / "contents.md").is_file()
    _build([sys.executable, "-m", "sphinx", "-W", "-b", "html", ".", "_build"], sphinx_site)
    for model in MODELS.split(","):
        html = (sphinx_site / "_build" / f"{model}.html").read_text()
        assert html.count('<div class="math notranslate nohighlight">') == fences(sphinx_site / f"{model}.md")
        assert "highlight-math" not in html
        assert re.search(r"<script[^>]*src=\"[^\"]*mathjax[^\"]*tex-mml-chtml\.js\"", html)
    index = (sphinx_site / "_build" / "index.html").read_text()
    # the contents' anchors resolve (-W fails on one that does not); MyST slugs _ as -
    assert 'href="llama-3-8b.html#kv-cache"' in index
    assert 'href="reproduce-the-lecture.html"' in index
    assert len(catalog.models()) > len(MODELS.split(","))  # a subset: the full set in test_docs


def test_an_unknown_site_is_refused():
    r = runner.invoke(app, ["docs", "--site", "hugo"])
    assert r.exit_code == 2 and "mkdocs" in r.output
