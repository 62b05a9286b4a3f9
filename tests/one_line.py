"""The bad-input rule the hardening tests share: one line naming what is wrong, exit code 2."""

from typer.testing import CliRunner

from ledgerbuild.cli import app

runner = CliRunner()


def refused(args: list[str], *words: str) -> str:
    """Run the CLI on `args`: exit 2, one line of output holding every word; that line."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]
