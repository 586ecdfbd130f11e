"""What the package's tests share: a live HistoryHub in a process of its own, a tiny scripted server, waiting
by polling, unique ids, and the README's examples. Nothing here imports Django: the suite runs without it."""
