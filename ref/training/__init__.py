"""Layer 7, TF1's training harness: Coordinator, QueueRunner, input pipelines,
hooks, MonitoredSession, SessionManager, Supervisor."""
