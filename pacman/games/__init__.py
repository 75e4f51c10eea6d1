"""Games written on the search protocol of `pacman.search.core`: Pacman and tic-tac-toe."""
