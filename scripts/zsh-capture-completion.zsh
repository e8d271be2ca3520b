#!/usr/bin/env zsh
# Prints the completions zsh offers for a command line, one per line, using the completion
# functions in a directory: zsh -f scripts/zsh-capture-completion.zsh DIR 'switchyard dlq li'
# The CLI tests use it on `switchyard completion zsh` (DIR holds it as _switchyard). The technique
# (an interactive zsh in a zpty, compadd wrapped to print its matches) follows Valodim's
# zsh-capture-completion.
zmodload zsh/zpty
zpty z zsh -f -i
local line
setopt rcquotes
() {
    zpty -w z source $1
    repeat 4; do
        zpty -r z line
        [[ $line == ok* ]] && return
    done
    echo 'error initializing.' >&2
    exit 2
} =( <<< "
PROMPT=
fpath=($1 \$fpath)
autoload compinit
compinit -u -d $1/.zcompdump
bindkey '^M' undefined
bindkey '^J' undefined
bindkey '^I' complete-word
null-line () { echo -E - \$'\0' }
compprefuncs=( null-line )
comppostfuncs=( null-line exit )
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
zstyle ':completion:*' list-separator ''
compadd () {
    if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
        builtin compadd \"\$@\"
        return \$?
    fi
    typeset -a __hits
    builtin compadd -A __hits \"\$@\"
    [[ -n \$__hits ]] || return
    local h
    for h in \$__hits; do echo -E - \"\$h\"; done
}
echo ok")
zpty -w z "$2"$'\t'
integer tog=0
while zpty -r z; do :; done | while IFS= read -r line; do
    if [[ $line == *$'\0\r' ]]; then
        (( tog++ )) && exit 0 || continue
    fi
    (( tog )) && echo -E - "${line%$'\r'}"
done
exit 2
