"""Launching bots: a bot's process started, confined, watched and killed.

``process`` (``BotProcess``: lines in and out with deadlines) holds two parts chosen once as the
bot starts, ``containment`` (its cgroup or its process tree) and ``pipes`` (plain pipes or FIFOs,
and the transcript tap). It runs on ``sandbox`` (bubblewrap or rlimits, the environment, the
limits), ``botuser`` (the uid a bot runs as), ``cgroups`` (a cgroup per bot), ``seccomp`` (the
system calls no namespace isolates, refused), ``reaper`` (nothing outlives the harness),
``procfs`` (Linux process facts) and ``bytecode`` (the bot library compiled for the bots, which
may not write it).
"""
