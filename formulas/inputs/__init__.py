"""Inputs: model fields, scenario settings, catalog lookups, architecture variants.

One module per kind, imported here in declaration order (the workbook's Inputs sheet follows
it), every name re-exported so `from .inputs import hidden_size` works as before.

Model fields are named as in HF config.json where HF has a name; the few traits HF keeps in
code rather than config (QKV bias, q/k norms, sinks, norms per layer, expert biases) are
normalised per family by `ledgerbuild.families`. Scenario inputs carry the names the CLI's
`--set` and the workbook's defined names use. Shortcut: booleans are 0/1 numbers.
"""

# in declaration order, not sorted: a later part reads the inputs an earlier one declared
# isort: off
from .constants import *  # noqa: F403
from .model_fields import *  # noqa: F403
from .scenario import *  # noqa: F403
from .formats import *  # noqa: F403
from .tables import *  # noqa: F403
from .time_models import *  # noqa: F403
from .training import *  # noqa: F403
from .ownership import *  # noqa: F403
from .plan import *  # noqa: F403
# isort: on
