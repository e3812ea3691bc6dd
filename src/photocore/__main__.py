import sys

from photocore.cli import main

sys.exit(main())
