"""What several commands show alike: the standings table (``standings``) and a run's live
progress (``progress``)."""
