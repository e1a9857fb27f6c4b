"""``python -m evalsig``: the command line."""

from evalsig.cli import main

main()
