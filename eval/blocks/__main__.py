from eval.blocks.cv import main

raise SystemExit(main())
