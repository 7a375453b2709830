import sys

from dmlpy.cli import main

sys.exit(main())
