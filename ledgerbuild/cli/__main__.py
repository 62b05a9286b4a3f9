"""python -m ledgerbuild.cli"""

from . import main

main()
