#!/bin/sh
# udnkit: 61 changes (61 create, 0 update, 0 delete)
set -e

# create load_balancer_group ns1_blue_clusterLBGroup
ovn-nbctl -- --id=@r1 create Load_Balancer_Group 'name="ns1_blue_clusterLBGroup"' >/dev/null

# create load_balancer_group ns1_blue_clusterRouterLBGroup
ovn-nbctl -- --id=@r1 create Load_Balancer_Group 'name="ns1_blue_clusterRouterLBGroup"' >/dev/null

# create load_balancer_group ns1_blue_clusterSwitchLBGroup
ovn-nbctl -- --id=@r1 create Load_Balancer_Group 'name="ns1_blue_clusterSwitchLBGroup"' >/dev/null

# create switch ext_ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ext_ns1_blue_node1"' >/dev/null

# create switch ext_ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ext_ns1_blue_node2"' >/dev/null

# create switch ns1_blue_join
ovn-nbctl -- --id=@r1 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_join"' >/dev/null

# create switch ns1_blue_node1
ovn-nbctl -- --id=@r1 get Load_Balancer_Group ns1_blue_clusterLBGroup -- --id=@r2 get Load_Balancer_Group ns1_blue_clusterSwitchLBGroup -- --id=@r3 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_node1"' 'other_config={"exclude_ips"="10.128.1.2","subnet"="10.128.1.0/24"}' 'load_balancer_group=[@r1,@r2]' >/dev/null

# create switch ns1_blue_node2
ovn-nbctl -- --id=@r1 get Load_Balancer_Group ns1_blue_clusterLBGroup -- --id=@r2 get Load_Balancer_Group ns1_blue_clusterSwitchLBGroup -- --id=@r3 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_node2"' 'other_config={"exclude_ips"="10.128.2.2","subnet"="10.128.2.0/24"}' 'load_balancer_group=[@r1,@r2]' >/dev/null

# create switch ns1_blue_transit_switch
ovn-nbctl -- --id=@r1 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_transit_switch"' 'other_config={"interconn-ts"="ns1_blue_transit_switch","mcast_flood_unregistered"="true","mcast_querier"="false","mcast_snoop"="true","requested-tnl-key"="16711684"}' >/dev/null

# create router GR_ns1_blue_node1
ovn-nbctl -- --id=@r1 get Load_Balancer_Group ns1_blue_clusterLBGroup -- --id=@r2 get Load_Balancer_Group ns1_blue_clusterRouterLBGroup -- --id=@r3 create Logical_Router 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="GR_ns1_blue_node1"' 'options={"always_learn_from_arp_request"="false","chassis"="chassis-1","disable_garp_rarp"="true","dynamic_neigh_routers"="false","lb_force_snat_ip"="router_ip","mac_binding_age_threshold"="300"}' 'load_balancer_group=[@r1,@r2]' >/dev/null

# create router GR_ns1_blue_node2
ovn-nbctl -- --id=@r1 get Load_Balancer_Group ns1_blue_clusterLBGroup -- --id=@r2 get Load_Balancer_Group ns1_blue_clusterRouterLBGroup -- --id=@r3 create Logical_Router 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="GR_ns1_blue_node2"' 'options={"always_learn_from_arp_request"="false","chassis"="chassis-2","disable_garp_rarp"="true","dynamic_neigh_routers"="false","lb_force_snat_ip"="router_ip","mac_binding_age_threshold"="300"}' 'load_balancer_group=[@r1,@r2]' >/dev/null

# create router ns1_blue_ovn_cluster_router
ovn-nbctl -- --id=@r1 create Logical_Router 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_ovn_cluster_router"' 'options={"always_learn_from_arp_request"="false"}' >/dev/null

# create switch_port breth0_ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["unknown"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="breth0_ns1_blue_node1"' 'options={"network_name"="physnet"}' 'type="localnet"' -- add Logical_Switch ext_ns1_blue_node1 ports @r1 >/dev/null

# create switch_port breth0_ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["unknown"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="breth0_ns1_blue_node2"' 'options={"network_name"="physnet"}' 'type="localnet"' -- add Logical_Switch ext_ns1_blue_node2 ports @r1 >/dev/null

# create switch_port etor-GR_ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["0a:58:ac:12:00:02"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="etor-GR_ns1_blue_node1"' 'options={"router-port"="rtoe-GR_ns1_blue_node1"}' 'type="router"' -- add Logical_Switch ext_ns1_blue_node1 ports @r1 >/dev/null

# create switch_port etor-GR_ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["0a:58:ac:12:00:03"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="etor-GR_ns1_blue_node2"' 'options={"router-port"="rtoe-GR_ns1_blue_node2"}' 'type="router"' -- add Logical_Switch ext_ns1_blue_node2 ports @r1 >/dev/null

# create switch_port jtor-GR_ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="jtor-GR_ns1_blue_node1"' 'options={"router-port"="rtoj-GR_ns1_blue_node1"}' 'type="router"' -- add Logical_Switch ns1_blue_join ports @r1 >/dev/null

# create switch_port jtor-GR_ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="jtor-GR_ns1_blue_node2"' 'options={"router-port"="rtoj-GR_ns1_blue_node2"}' 'type="router"' -- add Logical_Switch ns1_blue_join ports @r1 >/dev/null

# create switch_port jtor-ns1_blue_ovn_cluster_router
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="jtor-ns1_blue_ovn_cluster_router"' 'options={"router-port"="rtoj-ns1_blue_ovn_cluster_router"}' 'type="router"' -- add Logical_Switch ns1_blue_join ports @r1 >/dev/null

# create switch_port k8s-ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["0a:58:0a:80:01:02 10.128.1.2"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="k8s-ns1_blue_node1"' -- add Logical_Switch ns1_blue_node1 ports @r1 >/dev/null

# create switch_port k8s-ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["0a:58:0a:80:02:02 10.128.2.2"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="k8s-ns1_blue_node2"' -- add Logical_Switch ns1_blue_node2 ports @r1 >/dev/null

# create switch_port ns1_blue_tstor-node1
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_tstor-node1"' 'options={"requested-tnl-key"="2","router-port"="ns1_blue_rtots-node1"}' 'type="router"' -- add Logical_Switch ns1_blue_transit_switch ports @r1 >/dev/null

# create switch_port ns1_blue_tstor-node2
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="ns1_blue_tstor-node2"' 'options={"requested-tnl-key"="3","router-port"="ns1_blue_rtots-node2"}' 'type="router"' -- add Logical_Switch ns1_blue_transit_switch ports @r1 >/dev/null

# create switch_port stor-ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="stor-ns1_blue_node1"' 'options={"router-port"="rtos-ns1_blue_node1"}' 'type="router"' -- add Logical_Switch ns1_blue_node1 ports @r1 >/dev/null

# create switch_port stor-ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["router"]' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'name="stor-ns1_blue_node2"' 'options={"router-port"="rtos-ns1_blue_node2"}' 'type="router"' -- add Logical_Switch ns1_blue_node2 ports @r1 >/dev/null

# create router_port ns1_blue_rtots-node1
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:64:58:00:02"' 'name="ns1_blue_rtots-node1"' 'networks=["100.88.0.2/16"]' 'options={"mcast_flood"="true"}' -- add Logical_Router ns1_blue_ovn_cluster_router ports @r1 >/dev/null

# create router_port ns1_blue_rtots-node2
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:64:58:00:03"' 'name="ns1_blue_rtots-node2"' 'networks=["100.88.0.3/16"]' 'options={"mcast_flood"="true"}' -- add Logical_Router ns1_blue_ovn_cluster_router ports @r1 >/dev/null

# create router_port rtoe-GR_ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:ac:12:00:02"' 'name="rtoe-GR_ns1_blue_node1"' 'networks=["172.18.0.2/16"]' -- add Logical_Router GR_ns1_blue_node1 ports @r1 >/dev/null

# create router_port rtoe-GR_ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:ac:12:00:03"' 'name="rtoe-GR_ns1_blue_node2"' 'networks=["172.18.0.3/16"]' -- add Logical_Router GR_ns1_blue_node2 ports @r1 >/dev/null

# create router_port rtoj-GR_ns1_blue_node1
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:64:41:00:02"' 'name="rtoj-GR_ns1_blue_node1"' 'networks=["100.65.0.2/16"]' 'options={"gateway_mtu"="1400"}' -- add Logical_Router GR_ns1_blue_node1 ports @r1 >/dev/null

# create router_port rtoj-GR_ns1_blue_node2
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:64:41:00:03"' 'name="rtoj-GR_ns1_blue_node2"' 'networks=["100.65.0.3/16"]' 'options={"gateway_mtu"="1400"}' -- add Logical_Router GR_ns1_blue_node2 ports @r1 >/dev/null

# create router_port rtoj-ns1_blue_ovn_cluster_router
ovn-nbctl -- --id=@r1 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:64:41:00:01"' 'name="rtoj-ns1_blue_ovn_cluster_router"' 'networks=["100.65.0.1/16"]' -- add Logical_Router ns1_blue_ovn_cluster_router ports @r1 >/dev/null

# create router_port rtos-ns1_blue_node1
ovn-nbctl -- --id=@r1 create Gateway_Chassis 'chassis_name="chassis-1"' 'name="rtos-ns1_blue_node1-chassis-1"' priority=1 -- --id=@r2 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:0a:80:01:01"' 'name="rtos-ns1_blue_node1"' 'networks=["10.128.1.1/24"]' 'options={"gateway_mtu"="1400"}' 'gateway_chassis=[@r1]' -- add Logical_Router ns1_blue_ovn_cluster_router ports @r2 >/dev/null

# create router_port rtos-ns1_blue_node2
ovn-nbctl -- --id=@r1 create Gateway_Chassis 'chassis_name="chassis-2"' 'name="rtos-ns1_blue_node2-chassis-2"' priority=1 -- --id=@r2 create Logical_Router_Port 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'mac="0a:58:0a:80:02:01"' 'name="rtos-ns1_blue_node2"' 'networks=["10.128.2.1/24"]' 'options={"gateway_mtu"="1400"}' 'gateway_chassis=[@r1]' -- add Logical_Router ns1_blue_ovn_cluster_router ports @r2 >/dev/null

# create static_route GR_ns1_blue_node1||dst-ip|0.0.0.0/0|172.18.0.1
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="0.0.0.0/0"' 'nexthop="172.18.0.1"' 'output_port="rtoe-GR_ns1_blue_node1"' 'policy="dst-ip"' -- add Logical_Router GR_ns1_blue_node1 static_routes @r1 >/dev/null

# create static_route GR_ns1_blue_node1||dst-ip|10.128.0.0/16|100.65.0.1
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="10.128.0.0/16"' 'nexthop="100.65.0.1"' 'output_port="rtoj-GR_ns1_blue_node1"' 'policy="dst-ip"' -- add Logical_Router GR_ns1_blue_node1 static_routes @r1 >/dev/null

# create static_route GR_ns1_blue_node1||dst-ip|169.254.0.0/17|169.254.0.4
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="169.254.0.0/17"' 'nexthop="169.254.0.4"' 'output_port="rtoe-GR_ns1_blue_node1"' 'policy="dst-ip"' -- add Logical_Router GR_ns1_blue_node1 static_routes @r1 >/dev/null

# create static_route GR_ns1_blue_node2||dst-ip|0.0.0.0/0|172.18.0.1
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="0.0.0.0/0"' 'nexthop="172.18.0.1"' 'output_port="rtoe-GR_ns1_blue_node2"' 'policy="dst-ip"' -- add Logical_Router GR_ns1_blue_node2 static_routes @r1 >/dev/null

# create static_route GR_ns1_blue_node2||dst-ip|10.128.0.0/16|100.65.0.1
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="10.128.0.0/16"' 'nexthop="100.65.0.1"' 'output_port="rtoj-GR_ns1_blue_node2"' 'policy="dst-ip"' -- add Logical_Router GR_ns1_blue_node2 static_routes @r1 >/dev/null

# create static_route GR_ns1_blue_node2||dst-ip|169.254.0.0/17|169.254.0.4
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="169.254.0.0/17"' 'nexthop="169.254.0.4"' 'output_port="rtoe-GR_ns1_blue_node2"' 'policy="dst-ip"' -- add Logical_Router GR_ns1_blue_node2 static_routes @r1 >/dev/null

# create static_route ns1_blue_ovn_cluster_router||dst-ip|100.65.0.2/32|100.65.0.2
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="100.65.0.2"' 'nexthop="100.65.0.2"' 'policy="dst-ip"' -- add Logical_Router ns1_blue_ovn_cluster_router static_routes @r1 >/dev/null

# create static_route ns1_blue_ovn_cluster_router||dst-ip|100.65.0.3/32|100.65.0.3
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="100.65.0.3"' 'nexthop="100.65.0.3"' 'policy="dst-ip"' -- add Logical_Router ns1_blue_ovn_cluster_router static_routes @r1 >/dev/null

# create static_route ns1_blue_ovn_cluster_router||src-ip|10.128.1.0/24|100.65.0.2
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="10.128.1.0/24"' 'nexthop="100.65.0.2"' 'policy="src-ip"' -- add Logical_Router ns1_blue_ovn_cluster_router static_routes @r1 >/dev/null

# create static_route ns1_blue_ovn_cluster_router||src-ip|10.128.2.0/24|100.65.0.3
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'ip_prefix="10.128.2.0/24"' 'nexthop="100.65.0.3"' 'policy="src-ip"' -- add Logical_Router ns1_blue_ovn_cluster_router static_routes @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node1" && ip4.dst == 10.96.0.1 /* ns1_blue_node1 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node1\" && ip4.dst == 10.96.0.1 /* ns1_blue_node1 */"' 'nexthops=["10.128.1.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node1" && ip4.dst == 10.96.0.10 /* ns1_blue_node1 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node1\" && ip4.dst == 10.96.0.10 /* ns1_blue_node1 */"' 'nexthops=["10.128.1.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node1" && ip4.dst == 169.254.0.11 /* ns1_blue_node1 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node1\" && ip4.dst == 169.254.0.11 /* ns1_blue_node1 */"' 'nexthops=["10.128.1.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node1" && ip4.dst == 172.18.0.2 /* ns1_blue_node1 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node1\" && ip4.dst == 172.18.0.2 /* ns1_blue_node1 */"' 'nexthops=["10.128.1.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node2" && ip4.dst == 10.96.0.1 /* ns1_blue_node2 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node2\" && ip4.dst == 10.96.0.1 /* ns1_blue_node2 */"' 'nexthops=["10.128.2.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node2" && ip4.dst == 10.96.0.10 /* ns1_blue_node2 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node2\" && ip4.dst == 10.96.0.10 /* ns1_blue_node2 */"' 'nexthops=["10.128.2.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node2" && ip4.dst == 169.254.0.11 /* ns1_blue_node2 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node2\" && ip4.dst == 169.254.0.11 /* ns1_blue_node2 */"' 'nexthops=["10.128.2.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|1004|inport == "rtos-ns1_blue_node2" && ip4.dst == 172.18.0.3 /* ns1_blue_node2 */
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="reroute"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="inport == \"rtos-ns1_blue_node2\" && ip4.dst == 172.18.0.3 /* ns1_blue_node2 */"' 'nexthops=["10.128.2.2"]' priority=1004 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|102|ip4.src == 10.128.0.0/16 && ip4.dst == 10.128.0.0/16
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="allow"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="ip4.src == 10.128.0.0/16 && ip4.dst == 10.128.0.0/16"' priority=102 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|102|ip4.src == 10.128.0.0/16 && ip4.dst == 100.64.0.0/16
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="allow"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="ip4.src == 10.128.0.0/16 && ip4.dst == 100.64.0.0/16"' priority=102 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create policy ns1_blue_ovn_cluster_router|102|pkt.mark == 42
ovn-nbctl -- --id=@r1 create Logical_Router_Policy 'action="allow"' 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'match="pkt.mark == 42"' priority=102 -- add Logical_Router ns1_blue_ovn_cluster_router policies @r1 >/dev/null

# create nat GR_ns1_blue_node1|snat|10.128.0.0/16|169.254.0.11||
ovn-nbctl -- --id=@r1 create NAT 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'external_ip="169.254.0.11"' 'logical_ip="10.128.0.0/16"' 'options={"stateless"="false"}' 'type="snat"' -- add Logical_Router GR_ns1_blue_node1 nat @r1 >/dev/null

# create nat GR_ns1_blue_node1|snat|100.65.0.2/32|169.254.0.11||
ovn-nbctl -- --id=@r1 create NAT 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'external_ip="169.254.0.11"' 'logical_ip="100.65.0.2"' 'options={"stateless"="false"}' 'type="snat"' -- add Logical_Router GR_ns1_blue_node1 nat @r1 >/dev/null

# create nat GR_ns1_blue_node2|snat|10.128.0.0/16|169.254.0.11||
ovn-nbctl -- --id=@r1 create NAT 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'external_ip="169.254.0.11"' 'logical_ip="10.128.0.0/16"' 'options={"stateless"="false"}' 'type="snat"' -- add Logical_Router GR_ns1_blue_node2 nat @r1 >/dev/null

# create nat GR_ns1_blue_node2|snat|100.65.0.3/32|169.254.0.11||
ovn-nbctl -- --id=@r1 create NAT 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'external_ip="169.254.0.11"' 'logical_ip="100.65.0.3"' 'options={"stateless"="false"}' 'type="snat"' -- add Logical_Router GR_ns1_blue_node2 nat @r1 >/dev/null

# create nat ns1_blue_ovn_cluster_router|snat|10.128.1.0/24|169.254.0.12||rtos-ns1_blue_node1
ovn-nbctl -- --id=@r1 get Logical_Router_Port rtos-ns1_blue_node1 -- --id=@r2 create NAT 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node1","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'external_ip="169.254.0.12"' 'logical_ip="10.128.1.0/24"' 'match="eth.dst == 0a:58:0a:80:01:02"' 'options={"stateless"="false"}' 'type="snat"' gateway_port=@r1 -- add Logical_Router ns1_blue_ovn_cluster_router nat @r2 >/dev/null

# create nat ns1_blue_ovn_cluster_router|snat|10.128.2.0/24|169.254.0.12||rtos-ns1_blue_node2
ovn-nbctl -- --id=@r1 get Logical_Router_Port rtos-ns1_blue_node2 -- --id=@r2 create NAT 'external_ids={"k8s.ovn.org/network"="ns1_blue","k8s.ovn.org/node"="node2","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="primary","k8s.ovn.org/topology"="layer3"}' 'external_ip="169.254.0.12"' 'logical_ip="10.128.2.0/24"' 'match="eth.dst == 0a:58:0a:80:02:02"' 'options={"stateless"="false"}' 'type="snat"' gateway_port=@r1 -- add Logical_Router ns1_blue_ovn_cluster_router nat @r2 >/dev/null
