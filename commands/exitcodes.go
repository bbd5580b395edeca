package commands

// exitCodesHelp ends every command's help: scripts branch on these.
const exitCodesHelp = `
EXIT CODES:
   0    ok (also "no results")
   1    error
   2    usage error or invalid params
   3    denied by tool policy
   4    authentication failed
   5    gateway unreachable (start it with ` + "`openclaw serve`" + `)
   8    pending approval
   124  timed out
   130  interrupted
`
