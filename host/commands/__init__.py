"""`yard` itself: cli.py parses the arguments and hands each subcommand to its module
(`add_arguments(parser)`, `run(args) -> exit code`). Here: play and sim (the wiring of Mister X's
side, the link and the simulator), replay and verify (records, fair-play proofs), bench (the kinds).
The device tools and Europe's map editor are subcommands too, in their own packages (cli.COMMANDS).
"""
