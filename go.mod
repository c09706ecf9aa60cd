module orca

go 1.26.8

require golang.org/x/tools v0.39.0
