"""`irscore serve`: the workbench as a local web page (the top layer, beside the CLI).

The page runs the irscore commands themselves on what is pasted into it
(`irscore.web.worker`), so it shows the numbers the command line prints. It
imports every layer below; nothing imports it but `irscore serve`.
"""
