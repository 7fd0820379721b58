CONFIG_A=y
CONFIG_B=m
# CONFIG_C is not set
CONFIG_D="str"
CONFIG_A=y
