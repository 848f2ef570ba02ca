"""The `yard` command: cli.py parses the arguments and hands each subcommand to its module (`add_arguments(parser)`, `run(args) -> exit code`).

The subcommands whose work is a device tool, the simulator or Europe live with that work (cli.COMMANDS says where)."""
