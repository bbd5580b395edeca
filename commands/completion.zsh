#compdef openclaw
# zsh completion for openclaw. Load with: source <(openclaw completion zsh)
# It asks openclaw itself for the candidates, so it never drifts from the binary.
_openclaw() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
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
