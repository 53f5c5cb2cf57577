"""Fault fixture: exits with status 3 at once, before reading anything or saying ``ready``.

Why: the harness must report a ``startup`` fault (or ``crash``) promptly instead of waiting for
the whole start-up allowance, and keep the exit status for the report.
"""

import sys

if __name__ == "__main__":
    sys.exit(3)
