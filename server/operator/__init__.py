"""The operator's tools: the actions and their audit log, the review, the forgetting
of unused names, what reaches every worker, the command line."""
