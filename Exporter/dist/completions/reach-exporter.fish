# fish completion for reach-exporter (written by hand: the exporter reads its own options).
complete -c reach-exporter -l config -r -F -d 'A YAML configuration file'
complete -c reach-exporter -l listen -x -d 'Where to serve /metrics (HOST:PORT)'
complete -c reach-exporter -l target -x -a internet -d 'An address, host name or internet to watch'
complete -c reach-exporter -l netns -x -a '(ls /run/netns 2>/dev/null)' -d 'Watch this network namespace'
complete -c reach-exporter -l validate -x -a 'http dns icmp: tcp:' -d 'Validate reachable targets'
complete -c reach-exporter -l check-config -d 'Check the configuration, print what would run, and exit'
complete -c reach-exporter -l version -d 'Show the version'
complete -c reach-exporter -s h -l help -d 'Show help information'
