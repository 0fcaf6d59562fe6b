"""People label a random sample of a batch's items (`judgegraph label`, docs/labelling.md).

The results are indexed once (`results_index`), ordered by a seeded permutation or a stratified
design (`design`), and each label is appended and fsynced to the labels file (`labels_log`) by
a session (`session`) that the page (`server`, `page`) and the terminal (`terminal`) both drive.
The labels file is read by `schemas.labels_file`, for every command that reads it (`estimate`,
`compare`, `report`, `calibrate`, and a resumed session here). Nothing is imported here:
`judgegraph --help` stays light, and a command that only reads labels loads only that module.
"""
