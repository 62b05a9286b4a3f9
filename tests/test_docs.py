"""Derivations: every .tex compiles with pdflatex, every Markdown math span converts to MathML
(latex2mathml), the numbers in the documents equal `show --json`, catalog strings cannot
inject LaTeX, templates fail with one clear line."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from latex2mathml.converter import convert
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from ledgerbuild import catalog
from ledgerbuild.cli import app
from ledgerbuild.writers.docs import write_docs

runner = CliRunner()
ANCHOR = re.compile(r'<a id="q-[\w.-]+?-(\w+)"></a>')  # q-<model>-<quantity>
GFM = MarkdownIt("commonmark").enable("table")  # fences and tables as GitHub parses them


def math_blocks(markdown: str) -> list[str]:
    """The ```math fences of a document, parsed as GitHub does (no escape processing inside
    fences: GitHub passes them to MathJax untouched)."""
    return [t.content for t in GFM.parse(markdown) if t.type == "fence" and t.info == "math"]


def result_lines(markdown: str) -> dict:
    """quantity -> the last line of its derivation (the result), section by section."""
    parts = ANCHOR.split(markdown)[1:]
    out = {}
    for name, body in zip(parts[::2], parts[1::2], strict=False):
        lines = [
            ln.strip().removesuffix("\\\\").strip()
            for ln in math_blocks(body)[-1].splitlines()
            if ln.strip() and not ln.strip().startswith(("\\begin", "\\end"))
        ]
        out[name] = lines[-1].removeprefix("&= ")
    return out


@pytest.fixture(scope="module")
def docs_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    write_docs("all", ["md", "tex"], {}, out, plots=False)
    write_docs("llama-3-8b,deepseek-v3", ["tex"], {}, out, plots=True)  # with figures
    return out


def _need_pdflatex():
    if shutil.which("pdflatex") is None:
        message = "pdflatex is not installed (the README's test command installs it)"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)


def _compile(tex_path):
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex_path.name],
        cwd=tex_path.parent,
        capture_output=True,
        timeout=300,
    )
    # pdflatex wraps its output at 79 bytes, splitting multi-byte characters: decode leniently
    return run.returncode, run.stdout.decode("utf-8", errors="replace")


@pytest.mark.tex
def test_every_tex_compiles(docs_dir):
    _need_pdflatex()
    documents = [p for p in docs_dir.glob("*.tex") if not p.name.endswith("-body.tex")]
    from ledgerbuild import catalog

    assert len(documents) == len(catalog.models()) + 1  # every model + the index
    for tex in documents:
        code, log = _compile(tex)
        assert code == 0, (tex.name, log[-2000:])
        assert (tex.with_suffix(".pdf")).stat().st_size > 10_000
        # nothing runs past the margin (issue 15): equations scale to the line, text breaks
        assert "Overfull \\hbox" not in log, (tex.name, log[log.find("Overfull") :][:400])


def test_every_markdown_math_block_converts_to_mathml(docs_dir):
    """GitHub, MkDocs (arithmatex) and MyST read ```math fences verbatim; $$ blocks lose their
    backslash escapes on GitHub (params\\_total -> params_total: 'double subscripts')."""
    blocks = set()
    for md in docs_dir.glob("*.md"):
        text = md.read_text()
        assert "$$" not in text, md.name
        blocks |= {re.sub(r"\d", "0", block) for block in math_blocks(text)}
    assert len(blocks) > 1000  # ~6,900 blocks, ~1,600 shapes (digits do not change the parse)
    for block in blocks:
        convert(block)


def _number(tex: str) -> float:
    head = tex.split(r"\ \text")[0].replace("{,}", "")
    m = re.fullmatch(r"(-?[\d.]+)(?: \\times 10\^\{(-?\d+)\})?", head.strip())
    return float(m.group(1)) * 10 ** int(m.group(2) or 0)


@pytest.mark.parametrize("model", sorted(catalog.models()))
def test_document_numbers_equal_show_json(docs_dir, model):
    shown = json.loads(runner.invoke(app, ["show", model, "--json"]).output)["quantities"]
    sections = result_lines((docs_dir / f"{model}.md").read_text())
    # a model's document leaves out the quantities that are 0 for it (issue 31)
    assert set(sections) == {n for n, q in shown.items() if q["value"] != 0}
    for name, result in sections.items():
        want = shown[name]["value"]
        assert _number(result) == pytest.approx(want, rel=5e-5, abs=1e-12), name


def test_derive_snippets_have_stable_anchor_and_label():
    md = runner.invoke(app, ["derive", "llama-3-8b", "kv_bytes_per_token"]).output
    # the anchor names the model, so two models' snippets can share a page (issue 15)
    assert '<a id="q-llama-3-8b-kv_bytes_per_token"></a>' in md and "131{,}072" in md  # §5.1
    tex = runner.invoke(app, ["derive", "llama-3-8b", "kv_bytes_per_token", "--format", "tex"]).output
    assert r"\label{eq:llama-3-8b:kv_bytes_per_token}" in tex


@pytest.mark.tex
def test_eqref_to_a_snippet_prints_its_number(tmp_path):
    """Issue 15: two snippets in one document; \\eqref of the second prints (2)."""
    _need_pdflatex()
    first, second = (
        runner.invoke(app, ["derive", "llama-3-8b", q, "--format", "tex"]).output
        for q in ("params_total", "kv_bytes_per_token")
    )
    (tmp_path / "a.tex").write_text(
        "\\documentclass{article}\\usepackage{amsmath,graphicx}\\begin{document}\n"
        + first
        + second
        + "See \\eqref{eq:llama-3-8b:kv_bytes_per_token} and "
        "\\eqref{eq:llama-3-8b:params_total}.\n\\end{document}\n"
    )
    for _ in range(2):  # the second pass resolves the references
        code, log = _compile(tmp_path / "a.tex")
        assert code == 0, log[-1500:]
    assert "Overfull" not in log
    text = subprocess.run(["pdftotext", "a.pdf", "-"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "See (2) and (1)." in text


@pytest.mark.tex
def test_catalog_strings_cannot_inject_latex(tmp_path):
    _need_pdflatex()
    with open("models/llama-3.2-1b.yaml") as f:
        entry = yaml.safe_load(f)
    entry["id"] = "evil"
    entry["name"] = r"Evil_{model} & 100% #1 \input{/etc/passwd} $x$ ~^"
    path = tmp_path / "evil.yaml"
    path.write_text(yaml.safe_dump(entry))
    out = tmp_path / "docs"
    write_docs(str(path), ["tex"], {}, out, plots=False)
    body = (out / "evil-body.tex").read_text()
    assert r"\input{/etc/passwd}" not in body
    assert r"Evil\_\{model\} \& 100\% \#1 \textbackslash{}input\{/etc/passwd\} \$x\$" in body
    code, log = _compile(out / "evil.tex")
    assert code == 0, log[-2000:]


def test_template_folder_errors_are_one_line(tmp_path):
    mine = tmp_path / "tpl"
    mine.mkdir()
    result = runner.invoke(
        app, ["docs", "--format", "md", "--templates", str(mine), "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2 and "no templates found" in result.output
    for body, message in [
        ("line one\n{% for x in %}\n", "quantity.md.j2 line 2: template syntax error"),
        ("{{ 1/0 }}", "ZeroDivisionError"),
        ('{% include "nope.j2" %}', "'nope.j2' not found"),
        ("{{ ''.__class__.__mro__ }}", "unsafe"),
    ]:  # the sandbox holds
        (mine / "quantity.md.j2").write_text(body)
        result = runner.invoke(app, ["derive", "llama-3-8b", "params_total", "--templates", str(mine)])
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_templates_export_then_override_a_single_file(tmp_path):
    """Issue 15: `templates export DIR` writes the shipped set; a folder holding one edited
    file overrides just that file, the rest come from the shipped set."""
    mine = tmp_path / "tpl"
    assert runner.invoke(app, ["templates", "export", str(mine)]).exit_code == 0
    shipped = sorted(p.name for p in Path("templates").glob("*.j2"))
    assert sorted(p.name for p in mine.iterdir()) == shipped
    again = runner.invoke(app, ["templates", "export", str(mine)])
    assert again.exit_code == 2 and "--force" in again.output
    for p in mine.iterdir():
        if p.name != "quantity.md.j2":
            p.unlink()
    (mine / "quantity.md.j2").write_text("OURS {{ q.name }} = {{ q.result }}\n")
    snippet = runner.invoke(app, ["derive", "llama-3-8b", "kv_bytes_per_token", "--templates", str(mine)])
    assert snippet.output == "OURS kv_bytes_per_token = 131{,}072\\ \\text{bytes}\n"  # §5.1
    out = tmp_path / "o"
    assert (
        runner.invoke(
            app,
            [
                "docs",
                "--models",
                "llama-3-8b",
                "--format",
                "md",
                "--no-plots",
                "--templates",
                str(mine),
                "-o",
                str(out),
            ],
        ).exit_code
        == 0
    )
    page = (out / "llama-3-8b.md").read_text()
    assert "OURS params_total" in page and "## Architecture" in page  # shipped model.md.j2


def test_snippets_name_model_and_scenario_and_models_that_do_not_fit_say_so(docs_dir):
    snippet = runner.invoke(app, ["derive", "deepseek-v3", "tpot_s"]).output
    caption = snippet.splitlines()[3]
    assert caption.startswith("*DeepSeek-V3 (deepseek-v3); scenario: 8 (auto) x NVIDIA H100")
    # DeepSeek-V3 in BF16: 671 B params x 2 bytes on 80 GB GPUs needs more than one node
    assert "does not fit on 8 x NVIDIA H100 SXM5 80GB: needs 18 for the weights alone" in caption
    index = (docs_dir / "index.md").read_text()
    row = next(ln for ln in index.splitlines() if ln.startswith("| [deepseek-v3]"))
    assert "| 8 (auto) |" in row and "0 requests" not in row and "0 USD" not in row
    assert row.endswith("| - | - |")
    assert "| 1 (auto) |" in next(ln for ln in index.splitlines() if ln.startswith("| [llama-3-8b]"))
    assert "does not fit on 8 x" in (docs_dir / "deepseek-v3.md").read_text().split("## Arch")[0]


def test_unknown_quantity_names_the_close_ones():
    result = runner.invoke(app, ["derive", "llama-3-8b", "param_total"])
    assert result.exit_code == 2 and "did you mean params_total" in result.output


def test_large_results_carry_a_scaled_form_beside_the_exact_integer():
    """Issue 15: the exact integer, then about the same in T FLOP / B params; the scaled form is
    checked against the integer printed beside it, and 8.03 B against the lecture §3.1."""
    md = runner.invoke(app, ["derive", "llama-3-8b", "flops_prefill"]).output
    exact, scaled = re.search(
        r"&= ([\d{},]+)\\ \\text\{FLOP\}\\ \(\\approx ([\d.]+)\\ "
        r"\\text\{TFLOP\}\)",
        md,
    ).groups()
    assert float(scaled) == float(f"{int(exact.replace('{,}', '')) / 1e12:.4g}")
    md = runner.invoke(app, ["derive", "llama-3-8b", "params_total"]).output
    assert r"(\approx 8.03\ \text{B params})" in md  # lecture §3.1: 8.03 B


HOSTILE_NAME = (
    "模型 Модель\n\n# Heading [link](http://x) ![img](http://y) <b>html</b> "
    "\\input{/etc/passwd} \x01 $x$ % & _ `code` *em*"
)


@pytest.fixture(scope="module")
def hostile_docs(tmp_path_factory):
    """Issue 17: a model whose name carries blank lines, Markdown, HTML, LaTeX commands, a
    control character and non-Latin scripts."""
    tmp = tmp_path_factory.mktemp("hostile")
    entry = yaml.safe_load(catalog.model_paths()["llama-3.2-1b"].read_text())
    entry["id"], entry["name"] = "hostile", HOSTILE_NAME
    path = tmp / "hostile.yaml"
    path.write_text(yaml.safe_dump(entry, allow_unicode=True), encoding="utf-8")
    out = tmp / "docs"
    result = runner.invoke(app, ["docs", "--models", str(path), "--no-plots", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_catalog_strings_stay_text_in_markdown(hostile_docs):
    tokens = GFM.parse((hostile_docs / "hostile.md").read_text(encoding="utf-8"))
    assert sum(t.type == "heading_open" and t.tag == "h1" for t in tokens) == 1
    heading = tokens[[t.type for t in tokens].index("heading_open") + 1].children
    assert [t.type for t in heading] == ["text", "code_inline", "text"]  # name (`id`)
    shown = heading[0].content
    assert "[link](http://x) ![img](http://y) <b>html</b> \\input{/etc/passwd}" in shown
    assert "$x$ % & _ `code` *em*" in shown and "\n" not in shown
    inline = [t for tok in tokens if tok.children for t in tok.children]
    html = [t.content for t in tokens + inline if t.type in ("html_inline", "html_block")]
    assert all(re.fullmatch(r'<a id="q-hostile-\w+">|</a>', h.strip()) for h in html)  # anchors
    assert not any(t.type == "image" for t in inline)


@pytest.mark.tex
def test_catalog_strings_stay_text_in_latex(hostile_docs):
    """Blank lines collapse, commands are escaped, non-Latin scripts are transliterated to
    [U+XXXX] (pdflatex with T1 fonts; no Unicode engine assumed): the document compiles."""
    _need_pdflatex()
    body = (hostile_docs / "hostile-body.tex").read_text(encoding="utf-8")
    assert "[U+6A21]" in body and r"\input{" not in body
    code, log = _compile(hostile_docs / "hostile.tex")
    assert code == 0, log[-2000:]


def test_a_forked_worker_writes_the_same_documents(tmp_path, monkeypatch):
    """A second process writes half the models' documents and figures: the files are the ones
    a single process writes, byte for byte."""
    from ledgerbuild.writers import docs

    models = "llama-3-8b,qwen3-8b,deepseek-v3,gpt-oss-20b,gemma-3-27b,mixtral-8x7b,llama-3.2-1b,qwen2-vl-7b"
    write_docs(models, ["md", "tex"], {}, tmp_path / "two", plots=True)
    monkeypatch.setattr(docs.os, "cpu_count", lambda: 1)
    write_docs(models, ["md", "tex"], {}, tmp_path / "one", plots=True)
    two = {p.name: p.read_bytes() for p in (tmp_path / "two").iterdir()}
    one = {p.name: p.read_bytes() for p in (tmp_path / "one").iterdir()}
    assert len(one) == 8 * 5 + 2 + 2 + 1 and one == two  # md, tex, body, svg, pdf; VLM figure; lecture page


def test_the_forked_workers_end_without_a_signal(tmp_path, monkeypatch):
    """The workers finish and exit; none is sent SIGTERM (Pool.terminate's way, which hung a
    run for good when the signal landed on a worker's BLAS thread)."""
    from multiprocessing import popen_fork

    signalled: list[int] = []
    monkeypatch.setattr(popen_fork.Popen, "_send_signal", lambda self, sig: signalled.append(sig))
    models = "llama-3-8b,qwen3-8b,deepseek-v3,gpt-oss-20b,gemma-3-27b,mixtral-8x7b,llama-3.2-1b,qwen2.5-0.5b"
    write_docs(models, ["md"], {}, tmp_path, plots=False)
    assert len(list(tmp_path.glob("*.md"))) == 8 + 2 and signalled == []  # the index, the lecture page


def test_no_display_is_shrunk_or_over_1000_characters(docs_dir):
    """Issue 31: long formulas are broken into lines, not scaled (no \\resizebox), and no
    Markdown display exceeds the 1,000 characters some Git hosts accept."""
    for tex in docs_dir.glob("*.tex"):
        assert "\\resizebox" not in tex.read_text(), tex.name
    for md in docs_dir.glob("*.md"):
        for block in math_blocks(md.read_text()):
            assert len(block) <= 1000, (md.name, len(block))


def test_text_models_have_no_empty_section(docs_dir):
    text = (docs_dir / "llama-3-8b.md").read_text()
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert all("```math" in s or "|" in s or "![" in s for s in sections)
    assert "## multimodal" not in text


@pytest.mark.tex
def test_a_snippet_compiles_in_a_plain_article_with_amsmath(tmp_path):
    """The snippet's comment names amsmath; in a default (OT1) article with only that package
    it compiles and |error| comes out as bars (pdftotext reads them back), quotes as quotes."""
    _need_pdflatex()
    snippet = runner.invoke(app, ["derive", "llama-3-8b", "tpot_s", "--format", "tex"]).output
    assert "\\usepackage{amsmath}" in snippet.splitlines()[0]
    doc = tmp_path / "plain.tex"
    doc.write_text(
        "\\documentclass{article}\\usepackage{amsmath}\\begin{document}\n" + snippet + "\\end{document}\n"
    )
    code, log = _compile(doc)
    assert code == 0, log[-2000:]
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", str(doc.with_suffix(".pdf")), "-"], capture_output=True, text=True
        ).stdout
        assert "|error|" in text.replace(" ", "") and "—error—" not in text


@pytest.mark.tex
def test_derive_preamble_prints_a_complete_document(tmp_path):
    _need_pdflatex()
    out = tmp_path / "full.tex"
    r = runner.invoke(
        app,
        [
            "derive",
            "deepseek-v3",
            "offline_experts_unread_bytes",
            "--format",
            "tex",
            "--preamble",
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    code, log = _compile(out)
    assert code == 0 and "Overfull \\hbox" not in log, log[-2000:]
