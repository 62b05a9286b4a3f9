"""The line breaker remembers its work per text (issue 32): what a caller gets back is its own,
so changing it cannot change a later answer; a display breaks the same on a cache hit."""

from ledgerbuild.printers import latex_lines as L
from ledgerbuild.printers.latex_lines import aligned_rows, atoms, break_lines

LONG = " + ".join(rf"\frac{{a_{{{k}}} \cdot b}}{{c}}" for k in range(40))


def test_a_returned_list_is_the_callers_own():
    first = break_lines(LONG, 40.0)
    assert len(first) > 1  # 40 fractions, each about 5 characters wide, on 40-character lines
    first.clear()
    assert break_lines(LONG, 40.0) != []
    found = atoms(r"x \cdot y")
    found.append(found[0])
    assert [a.text for a in atoms(r"x \cdot y")] == ["x", r" \cdot", " y"]


def test_a_cache_hit_breaks_as_a_cold_cache_does():
    forms = [LONG, LONG.replace("b", "2"), "3"]
    warm = [aligned_rows("y", forms, width=50.0) for _ in range(2)]
    for remembered in (L._atoms, L.rendered_width, L._env_width, L._break_lines, L._plain):
        remembered.cache_clear()
    assert warm[0] == warm[1] == aligned_rows("y", forms, width=50.0)
    assert len(warm[0]) > 4  # 40 terms of about 7 characters in 50-character rows: broken
