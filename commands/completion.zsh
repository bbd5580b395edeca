#compdef openclaw
# zsh completion for openclaw. Load with: source <(openclaw completion zsh)
# It asks openclaw itself for the candidates (with descriptions), so it never
# drifts from the binary; openclaw answers such a request without running any command.
_openclaw() {
  local -a opts
  local cur=${words[CURRENT]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(OPENCLAW_COMPLETE=zsh ${(Q)words[1,CURRENT-1]} ${(Q)cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(OPENCLAW_COMPLETE=zsh ${(Q)words[1,CURRENT-1]} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
if [[ "$(basename -- ${(%):-%x})" != "_openclaw" ]]; then
  compdef _openclaw openclaw
fi
