"""`python -m openspore.insight start|stop|serve ...`: the dashboard's command line (see dashboard/cli.py)."""
import sys

from .dashboard.cli import main

if __name__ == "__main__":
    sys.exit(main())
