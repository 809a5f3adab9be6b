"""`python -m memory_apps` runs the iflow-memory CLI."""

import sys

from memory_apps.cli import main

sys.exit(main())
