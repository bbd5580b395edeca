# fish completion for openclaw. Load with: openclaw completion fish | source
# It asks openclaw itself for the candidates (with descriptions), so it never
# drifts from the binary; openclaw answers such a request without running any command.
function __openclaw_candidates
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        env OPENCLAW_COMPLETE=fish $tokens $cur --generate-bash-completion 2>/dev/null
    else
        env OPENCLAW_COMPLETE=fish $tokens --generate-bash-completion 2>/dev/null
    end
end
function __openclaw_no_candidates
    not count (__openclaw_candidates) >/dev/null
end
complete -c openclaw -f -a '(__openclaw_candidates)'
complete -c openclaw -F -n __openclaw_no_candidates
