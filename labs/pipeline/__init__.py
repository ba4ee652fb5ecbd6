"""Pipeline lab: the slowest stage sets the pace; find it by measuring, fix it, find the next one."""
