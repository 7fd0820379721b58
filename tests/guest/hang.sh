sleep 100000
