"""python -m hipkit: what this installation is and what it found (hipkit.show_config())."""
from hipkit._config import show_config

show_config()
