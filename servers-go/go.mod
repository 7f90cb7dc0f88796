module fairpair/servers-go

go 1.26
