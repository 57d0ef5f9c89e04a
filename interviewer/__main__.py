"""`python -m interviewer ...`: a thin shell over the library (see interviewer.cli)."""
import sys

from interviewer.cli import main

if __name__ == "__main__":
    sys.exit(main())
