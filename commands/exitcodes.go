package commands

// exitCodesHelp ends every command's help: scripts branch on these.
//
// State errors exit 1 (error), not 2: a state dir another gateway holds or
// a state database that is empty or corrupt is nothing the caller typed
// wrong, and no retry with other arguments fixes it; the one-line message
// says what to do (stop the other gateway, move the file aside or restore
// a backup). A code of their own would buy scripts nothing they can act
// on without reading that line, so none was added.
const exitCodesHelp = `
EXIT CODES:
   0    ok (also "no results")
   1    error (also state errors: state dir held by another gateway, unusable state database)
   2    usage error or invalid params
   3    denied by tool policy
   4    authentication failed
   5    gateway unreachable (start it with ` + "`openclaw serve`" + `)
   8    pending approval
   124  timed out
   130  interrupted
`
