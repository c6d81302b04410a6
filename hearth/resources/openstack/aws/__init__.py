"""The AWS::EC2 resource types, mapped onto Nova, Neutron and Cinder as Heat maps them."""
