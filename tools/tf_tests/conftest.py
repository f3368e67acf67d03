collect_ignore_glob = ["*"]  # the adapter runs TF's tests itself (driver.py); pytest collects nothing here
