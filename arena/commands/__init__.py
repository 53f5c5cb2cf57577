"""What each ``arena`` subcommand does, kept apart from the Typer declarations in ``arena.cli``."""
