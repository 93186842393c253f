# bash completion for reach-exporter (written by hand: the exporter reads its own options).
_reach_exporter() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --netns) COMPREPLY=($(compgen -W "$(ls /run/netns 2>/dev/null)" -- "$cur")); return ;;
        --validate) COMPREPLY=($(compgen -W "http http: dns dns: icmp: tcp:" -- "$cur")); return ;;
        --target) COMPREPLY=($(compgen -W "internet" -- "$cur")); return ;;
        --listen) return ;;
    esac
    COMPREPLY=($(compgen -W "--config --listen --target --netns --validate --check-config --version --help -h" -- "$cur"))
}
complete -F _reach_exporter reach-exporter
