module orca

go 1.26.8
