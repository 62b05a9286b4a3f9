"""Issue 31: every LaTeX document has PDF bookmarks and a table of contents. pdflatex runs twice
(the first run writes the .toc and the outline entries, the second sets them); poppler's
pdftohtml reads the PDF's outline back. The expected entries are the document's own headings
(its .tex source), so the check is independent of how the template writes them."""

import re
import shutil
import subprocess

import pytest

from ledgerbuild.writers.docs import write_docs

pytestmark = pytest.mark.tex
MODELS = "llama-3-8b,qwen2-vl-7b"  # a text model, a VLM (the index gets its Images figure)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    if shutil.which("pdflatex") is None or shutil.which("pdftohtml") is None:
        pytest.skip("pdflatex and poppler-utils are needed (the README's test command installs them)")
    out = tmp_path_factory.mktemp("tex")
    write_docs(MODELS, ["tex"], {}, out, plots=True)
    logs = {}
    for name in ["index", *MODELS.split(",")]:
        for _ in range(2):
            run = subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                cwd=out,
                capture_output=True,
                timeout=300,
            )
            assert run.returncode == 0, run.stdout.decode(errors="replace")[-2000:]
        logs[name] = run.stdout.decode("utf-8", errors="replace")
    return out, logs


def outline(pdf) -> list[str]:
    xml = subprocess.run(
        ["pdftohtml", "-xml", "-i", "-q", "-stdout", str(pdf)], capture_output=True, check=True, timeout=120
    ).stdout.decode("utf-8", errors="replace")
    return re.findall(r"<item[^>]*>(.*?)</item>", xml[xml.find("<outline>") :])


def plain(tex: str) -> str:
    """A heading as the PDF shows it: LaTeX escapes undone, \\texttt dropped."""
    return re.sub(r"\\texttt\{([^}]*)\}", r"\1", tex).replace("\\_", "_").replace("\\&", "&amp;")


@pytest.mark.parametrize("model", MODELS.split(","))
def test_a_model_pdf_has_bookmarks_for_every_heading_and_a_contents(compiled, model):
    out, logs = compiled
    body = (out / f"{model}-body.tex").read_text()
    topics = re.findall(r"\\subsection\*\{([^}]*)\}", body)
    quantities = re.findall(r"\\subsubsection\*\{([^}]*)\}", body)
    assert len(topics) > 10 and len(quantities) > 100
    marks = outline(out / f"{model}.pdf")
    assert marks[0].endswith(f"({model})")
    assert [plain(t) for t in topics] == [m for m in marks if m in {plain(t) for t in topics}]
    assert set(map(plain, quantities)) <= set(marks)
    assert len(marks) == 1 + len(topics) + len(quantities)
    toc = (out / f"{model}.toc").read_text()
    assert toc.count("\\contentsline {subsection}") == len(topics)
    text = subprocess.run(["pdftotext", "-l", "2", str(out / f"{model}.pdf"), "-"], capture_output=True,
                          check=True).stdout.decode()  # fmt: skip
    assert "Contents" in text and all(plain(t).split(" (")[0] in text for t in topics)
    assert "Overfull \\hbox" not in logs[model]


def test_the_index_pdf_has_bookmarks_and_a_contents(compiled):
    out, logs = compiled
    assert outline(out / "index.pdf") == ["Derivations per model", "Images"]
    assert (
        "Contents"
        in subprocess.run(
            ["pdftotext", "-l", "1", str(out / "index.pdf"), "-"], capture_output=True, check=True
        ).stdout.decode()
    )
    assert "Overfull \\hbox" not in logs["index"]
