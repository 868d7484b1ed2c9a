from dperm.cli import main

raise SystemExit(main())
